/* httpc.c — see httpc.h. */
#include "httpc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "strutil.h"

#define ANSWER_DEFAULT 512

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
                curl_easy_setopt(h, CURLOPT_CAINFO, o->ca_file);
        if (o->cert_file && *o->cert_file)
                curl_easy_setopt(h, CURLOPT_SSLCERT, o->cert_file);
        if (o->key_file && *o->key_file)
                curl_easy_setopt(h, CURLOPT_SSLKEY, o->key_file);
        if (o->insecure) {
                curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
                curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
        }
}

static void set_common(CURL *h, const struct httpc_opts *o, struct answer *a,
                       char *errbuf)
{
        curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_cloexec);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, o->timeout_ms);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep_answer);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, a);
        curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(h, CURLOPT_USERAGENT, "benchwatch/" PACKAGE_VERSION);
        if ((o->username && *o->username) || o->password) {
                curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
                curl_easy_setopt(h, CURLOPT_USERNAME, o->username ? o->username : "");
                curl_easy_setopt(h, CURLOPT_PASSWORD, o->password ? o->password : "");
        } else if (o->bearer) {
                curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
                curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, o->bearer);
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
                        n = curl_slist_append(l, *p);
                        if (!n) {
                                curl_slist_free_all(l);
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
                reply->error = str_printf("%s", *errbuf ? errbuf : curl_easy_strerror(cc));
                return cc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT :
                       cc == CURLE_COULDNT_CONNECT ? -ECONNREFUSED : -EIO;
        }
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &reply->status);
        if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
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
        curl_easy_reset(h);
        set_common(h, o, &a, errbuf);
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
        if (body) {
                curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
                curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        }
        cc = curl_easy_perform(h);
        curl_slist_free_all(hdr);
        r = finish(h, cc, errbuf, &a, reply);
        free(a.text);
        return r;
}
