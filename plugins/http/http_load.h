/* http_load.h — what the http plugin's parts share: the run's settings
 * (struct http_cfg), the load schedule and the tallies (struct http_load).
 *
 * Both engines ask the same schedule when to send and report every outcome
 * to it, so closed-loop, request-count and constant-rate runs mean the same
 * thing whichever engine runs them. */
#ifndef BENCHWATCH_HTTP_LOAD_H
#define BENCHWATCH_HTTP_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/plugin.h"
#include "util/hist.h"

/* Why a request failed; ab's "Failed requests" breakdown plus timeouts and
 * unexpected status codes. */
enum http_fail {
        HTTP_FAIL_CONNECT, /* the connection could not be opened */
        HTTP_FAIL_RECEIVE, /* reset or closed before a whole header */
        HTTP_FAIL_LENGTH,  /* body shorter than announced (cut off) */
        HTTP_FAIL_TIMEOUT, /* no whole response within `timeout` */
        HTTP_FAIL_STATUS,  /* whole response, status not expected */
        HTTP_FAIL_MAX,
};

extern const char *const http_fail_names[HTTP_FAIL_MAX];

struct http_cfg {
        const char *url;
        bool https;
        char *host;            /* as in the URL, for Host: and messages */
        char *port;            /* decimal text */
        char *where;           /* "host:port" for messages (no secrets) */
        const char *method;
        bool head;             /* HEAD: responses carry no body */
        const char *const *headers;
        size_t n_headers;
        const char *body;
        bool keepalive;
        bool tls_verify;
        unsigned concurrency;
        unsigned threads;      /* client threads (raw engine) */
        uint64_t requests;     /* 0: no limit */
        double duration;       /* seconds; 0: until the deadline */
        double rate;           /* requests/s; 0: closed loop */
        uint64_t timeout_ns;
        uint8_t expect[600 / 8]; /* bitmap of expected statuses */
        bool expect_any;
        char *auth;            /* "Authorization: Basic ..." or NULL */
        char *request;         /* the whole request (raw engine) */
        size_t request_len;
        struct sockaddr_storage addr; /* resolved address (raw engine) */
        socklen_t addr_len;
};

struct http_load {
        const struct http_cfg *cfg;
        const struct bw_host *h;
        uint64_t t0_ns;          /* start of the run */
        uint64_t end_ns;         /* no request is started after it */
        uint64_t hard_ns;        /* everything stops here (deadline) */
        uint64_t phase_ns;       /* open loop: this thread's offset */
        struct http_load *parent; /* the whole run's, when threaded */
        uint64_t issued;         /* requests handed out (incl. dropped) */
        uint64_t finished;       /* requests with an outcome */
        uint64_t complete;       /* whole responses (any status) */
        uint64_t failed[HTTP_FAIL_MAX];
        uint64_t non_2xx;
        uint64_t bytes;          /* received, headers included */
        uint64_t last_ns;        /* when the last request finished */
        uint64_t cpu_ns;         /* CPU time of the client's threads */
        uint64_t unreported;     /* outcomes not yet sent to progress() */
        bool stop;               /* stop issuing (stopping, abort) */
        int abort_err;           /* -errno: give up (never connected...) */
        char abort_msg[256];
        struct bw_hist hist;
};

void http_load_init(struct http_load *l, const struct http_cfg *cfg,
                    const struct bw_host *h, double deadline);
/* The intended start time of the next request if one may start at `now`;
 * false if none is due (yet, or ever: see http_load_more). In open-loop
 * mode requests that waited for a free connection beyond the timeout are
 * counted as timeouts here without being sent. */
bool http_load_next(struct http_load *l, uint64_t now, uint64_t *ret_intended);
/* When the next request falls due (open loop), or UINT64_MAX. */
uint64_t http_load_due(const struct http_load *l);
/* Whether any request may still be started at or after `now`. */
bool http_load_more(struct http_load *l, uint64_t now);
/* One request ended.  status: the HTTP status of a whole response. */
void http_load_done(struct http_load *l, uint64_t now, uint64_t intended,
                    int status);
void http_load_fail(struct http_load *l, uint64_t now, enum http_fail why);
/* Report outcomes still held back to h->progress (batched: the counter
 * is shared between threads). */
void http_load_flush(struct http_load *l);
/* Whether the run (or, threaded, any thread of it) gave up. */
bool http_load_halted(const struct http_load *l);
/* Add a thread's tallies to the run's. */
void http_load_merge(struct http_load *into, const struct http_load *from);
/* Give up early: the target cannot be reached at all. */
void http_load_abort(struct http_load *l, int err, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

#endif
