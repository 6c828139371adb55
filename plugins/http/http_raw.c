/* http_raw.c — the http plugin's client for plain http: one thread, one
 * epoll set, `concurrency` non-blocking HTTP/1.1 connections.
 *
 * It exists because the load generator must not be the bottleneck, and
 * libcurl's per-transfer bookkeeping made it one (figures in http.c).  The
 * request is built once; a response is parsed incrementally in place (status
 * line, Content-Length, chunked, Connection: close, read-to-EOF), so nothing
 * is allocated per request.  Outcomes are classified the way ab does: a
 * failed connect, a reset or close before the header (receive), a body cut
 * short (length), plus timeouts; a keep-alive connection the server closed
 * while idle is not a failure: the request is retried on a new connection.
 * Timeouts are kept in a list ordered by deadline (every request gets the
 * same timeout and requests start in order), so expiring them is O(1); an
 * answered connection waiting for the server's close moves up to its own,
 * shorter, deadline.
 *
 * A kept-alive connection sends its next request the way wrk does: the
 * answer read, it asks epoll for writability and writes when the next
 * epoll_wait says so, then stops asking (two epoll_ctl a request).  How
 * often a client sleeps in epoll_wait sets how often the server must wake
 * it, and each wake-up costs the server CPU: writing every request at once
 * after the batch of answers (three system calls a request) made this
 * client sleep 0.97 times a request against one nginx worker at
 * concurrency 50 on a 2-vCPU guest, nginx spent 24 µs of CPU a request
 * against 18-21 µs with wrk, and the client got 0.79x wrk's requests/s
 * (docs/reports/benchmarks.md). */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "http.h"
#include "http_parse.h"
#include "util/timeutil.h"

#define READ_BUF (64 * 1024)
#define RETRY_NS (10 * 1000000ull) /* wait after a failed connect */
/* how long an answered connection waits for the server's close (its FIN
 * follows the answer at once) before closing itself, as ab does at once:
 * a server that never closed held each connection to its request's
 * timeout, and a 1-s run lasted 5 s for 2 requests */
#define DRAIN_NS (50 * 1000000ull)

enum cstate { C_IDLE, C_WAIT, C_CONNECTING, C_WRITING, C_READING, C_DRAIN };

struct conn {
        int fd;
        uint8_t state;
        bool reused, want_out;
        struct http_parser p; /* the response coming in */
        uint64_t got;         /* bytes of this response so far */
        size_t sent;
        uint64_t intended, deadline, retry_at;
        struct conn *prev, *next; /* timeout list */
};

struct raw {
        struct http_load *l;
        const struct http_cfg *cfg;
        int ep, tfd;
        uint64_t armed;       /* timerfd expiry set, 0: none */
        struct conn *conns;
        struct conn **idle;
        size_t n_idle;
        unsigned n_wait, inflight;
        struct conn *head, *tail;
        char *buf;
        int conn_errno;
};

static void start(struct raw *w, struct conn *c, uint64_t now);

/* ---- the deadline list ------------------------------------------------- */

static void list_add(struct raw *w, struct conn *c)
{
        c->next = NULL;
        c->prev = w->tail;
        if (w->tail)
                w->tail->next = c;
        else
                w->head = c;
        w->tail = c;
        w->inflight++;
}

/* c by its deadline, after those due no later: one earlier than the
 * requests' (a drain's) is near the head, where the walk stays short. */
static void list_insert(struct raw *w, struct conn *c)
{
        struct conn *after = NULL;
        for (struct conn *p = w->head; p && p->deadline <= c->deadline; p = p->next)
                after = p;
        c->prev = after;
        c->next = after ? after->next : w->head;
        if (c->next)
                c->next->prev = c;
        else
                w->tail = c;
        if (after)
                after->next = c;
        else
                w->head = c;
        w->inflight++;
}

static void list_del(struct raw *w, struct conn *c)
{
        if (c->prev)
                c->prev->next = c->next;
        else
                w->head = c->next;
        if (c->next)
                c->next->prev = c->prev;
        else
                w->tail = c->prev;
        c->prev = c->next = NULL;
        w->inflight--;
}

/* ---- connections ------------------------------------------------------- */

static void drop_fd(struct conn *c)
{
        if (c->fd >= 0)
                close(c->fd);
        c->fd = -1;
        c->reused = false;
        c->want_out = false;
}

static void go_idle(struct raw *w, struct conn *c)
{
        c->state = C_IDLE;
        w->idle[w->n_idle++] = c;
}

static void failed(struct raw *w, struct conn *c, uint64_t now, enum http_fail why)
{
        list_del(w, c);
        drop_fd(c);
        http_load_fail(w->l, now, why);
        if (why == HTTP_FAIL_CONNECT && w->l->cfg->rate <= 0) {
                c->state = C_WAIT; /* do not spin on a dead server */
                c->retry_at = now + RETRY_NS;
                w->n_wait++;
                return;
        }
        start(w, c, now);
}

static void set_events(struct raw *w, struct conn *c, uint32_t ev, int op)
{
        struct epoll_event e = { .events = ev, .data.ptr = c };
        epoll_ctl(w->ep, op, c->fd, &e);
}

static void connect_failed(struct raw *w, struct conn *c, uint64_t now, int err)
{
        struct http_load *l = w->l;
        if (!w->conn_errno)
                w->conn_errno = err;
        failed(w, c, now, HTTP_FAIL_CONNECT);
        /* ab's rule: ten failures before any success is an unreachable
         * target, not a measurement */
        if (!l->complete && l->failed[HTTP_FAIL_CONNECT] >= 10)
                http_load_abort(l, -err, "cannot connect to %s: %s",
                                l->cfg->where, strerror(err));
}

static void send_request(struct raw *w, struct conn *c, uint64_t now)
{
        const struct http_cfg *cfg = w->cfg;
        while (c->sent < cfg->request_len) {
                ssize_t n = send(c->fd, cfg->request + c->sent,
                                 cfg->request_len - c->sent, MSG_NOSIGNAL);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN) {
                        c->state = C_WRITING;
                        c->want_out = true;
                        set_events(w, c, EPOLLIN | EPOLLOUT, EPOLL_CTL_MOD);
                        return;
                }
                if (n < 0) {
                        c->state = C_READING; /* let the read side classify */
                        return;
                }
                c->sent += (size_t)n;
        }
        if (c->want_out) {
                c->want_out = false;
                set_events(w, c, EPOLLIN, EPOLL_CTL_MOD);
        }
        c->state = C_READING;
}

static void open_conn(struct raw *w, struct conn *c, uint64_t now)
{
        const struct http_cfg *cfg = w->cfg;
        int one = 1;
        c->fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                       IPPROTO_TCP);
        if (c->fd < 0) {
                connect_failed(w, c, now, errno);
                return;
        }
        /* a request that fits one segment is never held back by Nagle: spare
         * the system call then */
        if (cfg->request_len > 1024)
                setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (connect(c->fd, (const struct sockaddr *)&cfg->addr, cfg->addr_len) < 0 &&
            errno != EINPROGRESS) {
                connect_failed(w, c, now, errno);
                return;
        }
        /* on loopback the handshake is often complete by now: send at once
         * and spare a wake-up and an epoll_ctl per connection; otherwise
         * (still connecting) wait for it */
        ssize_t n = send(c->fd, cfg->request, cfg->request_len, MSG_NOSIGNAL);
        if (n == (ssize_t)cfg->request_len) {
                c->sent = (size_t)n;
                c->state = C_READING;
                set_events(w, c, EPOLLIN, EPOLL_CTL_ADD);
                return;
        }
        if (n > 0) {
                c->sent = (size_t)n;
                c->state = C_WRITING;
                c->want_out = true;
                set_events(w, c, EPOLLIN | EPOLLOUT, EPOLL_CTL_ADD);
                return;
        }
        if (n < 0 && errno != EAGAIN && errno != ENOTCONN) {
                connect_failed(w, c, now, errno); /* send took the socket's error */
                return;
        }
        c->state = C_CONNECTING;
        set_events(w, c, EPOLLOUT, EPOLL_CTL_ADD);
}

/* The next request, if one may go now; otherwise the connection waits. */
static void start(struct raw *w, struct conn *c, uint64_t now)
{
        uint64_t t;
        if (!http_load_next(w->l, now, &t)) {
                go_idle(w, c);
                return;
        }
        c->intended = t;
        c->deadline = t + w->cfg->timeout_ns;
        list_add(w, c);
        http_parser_reset(&c->p);
        c->got = 0;
        c->sent = 0;
        if (c->fd < 0) {
                open_conn(w, c, now);
                return;
        }
        /* as wrk: write when epoll next says the socket is writable */
        c->state = C_WRITING;
        c->want_out = true;
        set_events(w, c, EPOLLIN | EPOLLOUT, EPOLL_CTL_MOD);
}

/* The request is kept; only its connection is replaced. */
static void reconnect(struct raw *w, struct conn *c, uint64_t now)
{
        drop_fd(c);
        c->got = 0;
        c->sent = 0;
        c->p.ps = HTTP_P_STATUS;
        c->p.line_len = 0;
        open_conn(w, c, now);
}

static void on_connected(struct raw *w, struct conn *c, uint32_t ev, uint64_t now)
{
        int err = 0;
        socklen_t len = sizeof(err);
        /* only a failed connect raises EPOLLERR/EPOLLHUP: ask why then */
        if ((ev & (EPOLLERR | EPOLLHUP)) &&
            getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                err = errno;
        if ((ev & (EPOLLERR | EPOLLHUP)) && !err)
                err = ECONNABORTED;
        if (err) {
                connect_failed(w, c, now, err);
                return;
        }
        set_events(w, c, EPOLLIN, EPOLL_CTL_MOD);
        send_request(w, c, now);
}

/* The server said it closes: wait for its FIN before closing, so that the
 * TIME_WAIT state stays on the server's side and a long run does not eat
 * this host's ephemeral ports (client-side TIME_WAIT caps new connections
 * at a few hundred per second once the port range is full). */
static void drain(struct raw *w, struct conn *c, uint64_t now)
{
        for (;;) {
                ssize_t n = recv(c->fd, w->buf, READ_BUF, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return; /* wait for it (bounded by the deadline) */
                if (n <= 0)
                        break;
                w->l->bytes += (uint64_t)n;
        }
        list_del(w, c);
        drop_fd(c);
        start(w, c, now);
}

static void on_complete(struct raw *w, struct conn *c, uint64_t now)
{
        http_load_done(w->l, now, c->intended, c->p.status);
        if (w->cfg->keepalive && !c->p.close) {
                list_del(w, c);
                c->reused = true;
                start(w, c, now);
                return;
        }
        c->state = C_DRAIN;
        if (now + DRAIN_NS < c->deadline) {
                list_del(w, c);
                c->deadline = now + DRAIN_NS;
                list_insert(w, c);
        }
        drain(w, c, now);
}

/* End of stream or an error while a request is out. */
static void on_eof(struct raw *w, struct conn *c, uint64_t now, bool reset)
{
        if (c->reused && !c->got) {
                reconnect(w, c, now); /* idle keep-alive closed: not an error */
                return;
        }
        if (c->p.ps == HTTP_P_BODY_EOF && !reset) {
                on_complete(w, c, now);
                return;
        }
        bool header = c->p.ps == HTTP_P_STATUS || c->p.ps == HTTP_P_HEADER;
        failed(w, c, now, header ? HTTP_FAIL_RECEIVE : HTTP_FAIL_LENGTH);
}

static void on_readable(struct raw *w, struct conn *c, uint64_t now)
{
        for (;;) {
                ssize_t n = recv(c->fd, w->buf, READ_BUF, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return;
                if (n <= 0) {
                        on_eof(w, c, now, n < 0);
                        return;
                }
                w->l->bytes += (uint64_t)n;
                c->got += (uint64_t)n;
                int r = http_parse(&c->p, w->cfg->head, w->buf, (size_t)n);
                if (r > 0) {
                        on_complete(w, c, now);
                        return;
                }
                if (r < 0) {
                        failed(w, c, now, HTTP_FAIL_RECEIVE);
                        return;
                }
                if (n < READ_BUF)
                        return;
        }
}

static void on_event(struct raw *w, struct conn *c, uint32_t ev, uint64_t now)
{
        if (c->state == C_CONNECTING) {
                on_connected(w, c, ev, now);
                return;
        }
        if (c->state == C_WRITING && (ev & EPOLLOUT)) {
                send_request(w, c, now);
                if (!(ev & (EPOLLIN | EPOLLERR | EPOLLHUP)))
                        return;
        }
        if (c->state == C_DRAIN)
                drain(w, c, now);
        else if (c->state == C_WRITING || c->state == C_READING)
                on_readable(w, c, now);
        else if (c->state == C_IDLE && c->fd >= 0)
                drop_fd(c); /* the server closed an idle connection */
}

/* ---- the loop ---------------------------------------------------------- */

static void expire(struct raw *w, uint64_t now)
{
        while (w->head && w->head->deadline <= now) {
                struct conn *c = w->head;
                if (c->state != C_DRAIN) {
                        failed(w, c, now, HTTP_FAIL_TIMEOUT);
                        continue;
                }
                list_del(w, c); /* answered; the server just never closed */
                drop_fd(c);
                start(w, c, now);
        }
}

static void wake_idle(struct raw *w, uint64_t now)
{
        if (w->n_wait)
                for (unsigned i = 0; i < w->cfg->concurrency; i++) {
                        struct conn *c = &w->conns[i];
                        if (c->state == C_WAIT && c->retry_at <= now) {
                                w->n_wait--;
                                start(w, c, now);
                        }
                }
        while (w->n_idle && http_load_due(w->l) <= now) {
                struct conn *c = w->idle[--w->n_idle];
                start(w, c, now);
                if (c->state == C_IDLE)
                        break; /* it went back: nothing was due after all */
        }
}

/* Milliseconds epoll may sleep; the open-loop send times go to a timerfd,
 * since a millisecond of lateness would show as latency. */
static int sleep_ms(struct raw *w, uint64_t now)
{
        uint64_t wake = now + 100000000ull; /* notice stopping() soon */
        if (w->l->hard_ns < wake)
                wake = w->l->hard_ns;
        if (w->head && w->head->deadline < wake)
                wake = w->head->deadline;
        if (w->n_wait && now + RETRY_NS < wake)
                wake = now + RETRY_NS;
        if (http_load_more(w->l, now) && w->l->end_ns < wake && w->cfg->rate <= 0)
                wake = w->l->end_ns;
        uint64_t due = w->n_idle ? http_load_due(w->l) : UINT64_MAX;
        if (due <= now)
                return 0;
        if (due != UINT64_MAX && due != w->armed) {
                struct itimerspec its = { .it_value = {
                        .tv_sec = (time_t)(due / 1000000000u),
                        .tv_nsec = (long)(due % 1000000000u) } };
                timerfd_settime(w->tfd, TFD_TIMER_ABSTIME, &its, NULL);
                w->armed = due;
        }
        return wake <= now ? 0 : (int)((wake - now + 999999) / 1000000);
}

static void loop(struct raw *w)
{
        struct epoll_event ev[256];
        const struct bw_host *h = w->l->h;
        for (;;) {
                uint64_t now = now_ns();
                if (now >= w->l->hard_ns || http_load_halted(w->l) || h->stopping(h))
                        break;
                if (!w->inflight && !w->n_wait && !http_load_more(w->l, now))
                        break;
                int n = epoll_wait(w->ep, ev, 256, sleep_ms(w, now));
                now = now_ns();
                for (int i = 0; i < n; i++) {
                        if (ev[i].data.ptr == NULL) {
                                uint64_t x;
                                if (read(w->tfd, &x, sizeof(x)) < 0)
                                        x = 0; /* spurious: nothing to do */
                                w->armed = 0;
                                continue;
                        }
                        on_event(w, ev[i].data.ptr, ev[i].events, now);
                }
                expire(w, now);
                wake_idle(w, now);
        }
}

static int resolve(struct http_load *l, struct http_cfg *cfg)
{
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
        char host[256];
        size_t n = strlen(cfg->host);
        if (n >= sizeof(host)) {
                http_load_abort(l, -EINVAL, "host name too long");
                return -EINVAL;
        }
        /* an IPv6 literal comes in brackets */
        if (n > 2 && cfg->host[0] == '[') {
                memcpy(host, cfg->host + 1, n - 2);
                host[n - 2] = '\0';
        } else
                memcpy(host, cfg->host, n + 1);
        int r = getaddrinfo(host, cfg->port, &hints, &ai);
        if (r) {
                http_load_abort(l, -EHOSTUNREACH, "cannot resolve host '%s': %s",
                                host, r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
                return -EHOSTUNREACH;
        }
        memcpy(&cfg->addr, ai->ai_addr, ai->ai_addrlen);
        cfg->addr_len = ai->ai_addrlen;
        freeaddrinfo(ai);
        return 0;
}

static int setup(struct raw *w, struct http_load *l)
{
        unsigned n = l->cfg->concurrency;
        struct epoll_event e = { .events = EPOLLIN, .data.ptr = NULL };
        w->l = l;
        w->cfg = l->cfg;
        w->ep = epoll_create1(EPOLL_CLOEXEC);
        w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        w->conns = calloc(n, sizeof(*w->conns));
        w->idle = calloc(n, sizeof(*w->idle));
        w->buf = malloc(READ_BUF);
        if (w->ep < 0 || w->tfd < 0)
                return l->h->fail(l->h, -errno, "cannot create an epoll set: %s",
                                  strerror(errno));
        if (!w->conns || !w->idle || !w->buf)
                return l->h->fail(l->h, -ENOMEM, "out of memory");
        epoll_ctl(w->ep, EPOLL_CTL_ADD, w->tfd, &e);
        for (unsigned i = 0; i < n; i++)
                w->conns[i].fd = -1;
        return 0;
}

static int run_one(struct http_load *l)
{
        struct raw w = { .ep = -1, .tfd = -1 };
        uint64_t cpu0 = thread_cpu_ns();
        int r = setup(&w, l);
        if (r == 0) {
                uint64_t now = now_ns();
                for (unsigned i = 0; i < l->cfg->concurrency; i++)
                        start(&w, &w.conns[i], now);
                loop(&w);
        }
        http_load_flush(l);
        for (unsigned i = 0; w.conns && i < l->cfg->concurrency; i++)
                drop_fd(&w.conns[i]);
        if (w.ep >= 0)
                close(w.ep);
        if (w.tfd >= 0)
                close(w.tfd);
        free(w.conns);
        free(w.idle);
        free(w.buf);
        l->cpu_ns += thread_cpu_ns() - cpu0;
        return r;
}

struct worker {
        pthread_t tid;
        struct http_cfg cfg;
        struct http_load l;
        int r;
};

static void *worker_main(void *arg)
{
        struct worker *wk = arg;
        wk->r = run_one(&wk->l);
        return NULL;
}

static uint64_t share(uint64_t total, unsigned n, unsigned i)
{
        return total / n + (i < total % n ? 1 : 0);
}

/* Thread i gets its share of connections, requests and rate (its send
 * times interleaved with the others'), and its own tallies. */
static void worker_init(struct worker *wk, struct http_load *l,
                        const struct http_cfg *cfg, unsigned n, unsigned i)
{
        wk->cfg = *cfg;
        wk->cfg.concurrency = (unsigned)share(cfg->concurrency, n, i);
        wk->cfg.requests = share(cfg->requests, n, i);
        wk->cfg.rate = cfg->rate / n;
        http_load_init(&wk->l, &wk->cfg, l->h, 0); /* times: the run's */
        wk->l.t0_ns = l->t0_ns;
        wk->l.end_ns = l->end_ns;
        wk->l.hard_ns = l->hard_ns;
        wk->l.parent = l;
        if (cfg->rate > 0)
                wk->l.phase_ns = (uint64_t)((double)i * 1e9 / cfg->rate);
}

static int run_threads(struct http_load *l, const struct http_cfg *cfg, unsigned n)
{
        struct worker *wk = calloc(n, sizeof(*wk));
        unsigned started = 0;
        int r = 0;
        if (!wk)
                return l->h->fail(l->h, -ENOMEM, "out of memory");
        for (; started < n; started++) {
                worker_init(&wk[started], l, cfg, n, started);
                r = -pthread_create(&wk[started].tid, NULL, worker_main, &wk[started]);
                if (r < 0) {
                        http_load_abort(l, r, "cannot start a client thread: %s",
                                        strerror(-r));
                        break;
                }
        }
        for (unsigned i = 0; i < started; i++) {
                pthread_join(wk[i].tid, NULL);
                http_load_merge(l, &wk[i].l);
                if (wk[i].r < 0 && r == 0)
                        r = wk[i].r;
        }
        free(wk);
        return r;
}

int http_raw_run(struct http_load *l, struct http_cfg *cfg)
{
        int r = resolve(l, cfg);
        if (r < 0)
                return 0; /* recorded as the abort reason */
        unsigned n = cfg->threads < cfg->concurrency ? cfg->threads : cfg->concurrency;
        if (cfg->requests && cfg->requests < n)
                n = (unsigned)cfg->requests;
        if (n <= 1)
                return run_one(l);
        return run_threads(l, cfg, n);
}
