/* httpc.h — one HTTP request to a metrics receiver (the Pushgateway, a
 * remote-write endpoint), with the settings those sinks share: basic auth
 * or a bearer token, TLS files, timeouts, close-on-exec sockets.
 *
 * Both sinks run their requests on a worker thread with a CURL handle of
 * their own; this module only turns one request into a status and, on
 * failure, a one-line reason with the start of the receiver's answer.
 * Nothing here logs. */
#ifndef BENCHWATCH_HTTPC_H
#define BENCHWATCH_HTTPC_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

struct httpc_opts {
        const char *username;       /* basic auth when set or password set */
        const char *password;
        const char *bearer;         /* Authorization: Bearer, when set */
        const char *ca_file, *cert_file, *key_file;
        bool insecure;
        long connect_timeout_ms, timeout_ms;
        size_t answer_max;          /* bytes of an error answer kept; 0: 512 */
};

struct httpc_reply {
        long status;                /* 0: no answer came */
        double retry_after;         /* seconds the receiver asked for; 0: none */
        char *error;                /* malloc'd reason when not 2xx */
};

/* A handle for httpc_request; libcurl is loaded at the first call, so a
 * daemon without these outputs never maps it.  NULL with *ret_error set
 * (malloc'd) when libcurl cannot be loaded.  httpc_close(NULL) is a no-op. */
CURL *httpc_open(char **ret_error);
void httpc_close(CURL *h);

/* method "PUT", "POST" or "DELETE"; headers NULL-terminated ("Name: v"),
 * may be NULL.  0 on a 2xx answer; otherwise -ETIMEDOUT, -ECONNREFUSED,
 * -EIO (no or a non-2xx answer: see reply) or -ENOMEM.  reply->error is
 * the caller's to free either way. */
int httpc_request(CURL *h, const struct httpc_opts *o, const char *method,
                  const char *url, const char *const *headers,
                  const void *body, size_t len, struct httpc_reply *reply);

#endif
