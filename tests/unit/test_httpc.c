/* test_httpc.c — one request to a receiver, against a small HTTP server of
 * the test's own on 127.0.0.1: the method, body, headers and credentials
 * arrive as given; a 2xx answer is success; any other answer is -EIO with
 * "HTTP <status>: <the start of the answer on one line>", cut at
 * answer_max; Retry-After is read; a closed port is -ECONNREFUSED and a
 * receiver that never answers -ETIMEDOUT within the timeout.  Skipped (77)
 * when libcurl cannot be loaded. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test.h"
#include "sink/httpc.h"
#include "util/fdio.h"
#include "util/timeutil.h"

struct server {
        int fd;
        int port;
        const char *answer;  /* the whole response; NULL: read, never answer */
        char request[8192];  /* what came: head and body */
};

/* One connection: the request's head and its body, then the answer. */
static void *serve(void *arg)
{
        struct server *s = arg;
        int c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
        size_t len = 0;
        if (c < 0)
                return NULL;
        for (;;) {
                ssize_t n = read(c, s->request + len, sizeof(s->request) - 1 - len);
                if (n <= 0)
                        break;
                len += (size_t)n;
                s->request[len] = 0;
                char *end = strstr(s->request, "\r\n\r\n");
                const char *cl = strcasestr(s->request, "\r\nContent-Length:");
                size_t body = cl ? strtoul(cl + 17, NULL, 10) : 0;
                if (end && len >= (size_t)(end + 4 - s->request) + body)
                        break;
        }
        if (s->answer)
                (void)fdio_write_all(c, s->answer, strlen(s->answer));
        else
                sleep_until_ns(now_ns() + 2000000000ull); /* past the client's timeout */
        close(c);
        return NULL;
}

static int listen_local(int *ret_port)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t al = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(fd, 4) == 0);
        CHECK(getsockname(fd, (struct sockaddr *)&a, &al) == 0);
        *ret_port = ntohs(a.sin_port);
        return fd;
}

/* One request to a server answering `answer`; its request kept in s. */
static int exchange(CURL *h, struct server *s, const struct httpc_opts *o, const char *method,
                    const char *const *headers, const char *body, struct httpc_reply *reply)
{
        char url[64];
        pthread_t t;
        s->fd = listen_local(&s->port);
        snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics/job/benchwatch", s->port);
        CHECK(pthread_create(&t, NULL, serve, s) == 0);
        int r = httpc_request(h, o, method, url, headers, body, body ? strlen(body) : 0, reply);
        pthread_join(t, NULL);
        close(s->fd);
        return r;
}

static const struct httpc_opts base = { .connect_timeout_ms = 2000, .timeout_ms = 5000 };

static void test_success(CURL *h)
{
        struct server s = { .answer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" };
        struct httpc_reply rep;
        struct httpc_opts o = base;
        o.bearer = "tok-123";
        const char *headers[] = { "Content-Type: text/plain", NULL };
        EXPECT(exchange(h, &s, &o, "PUT", headers, "cpu 1\n", &rep) == 0);
        EXPECT(rep.status == 200 && !rep.error && rep.retry_after == 0);
        EXPECT(!strncmp(s.request, "PUT /metrics/job/benchwatch HTTP/1.1\r\n", 38));
        EXPECT(strstr(s.request, "\r\nAuthorization: Bearer tok-123\r\n"));
        EXPECT(strstr(s.request, "\r\nContent-Type: text/plain\r\n"));
        EXPECT(strstr(s.request, "\r\nUser-Agent: benchwatch/"));
        EXPECT(!strstr(s.request, "Expect:")); /* no 100-continue round trip */
        char *body = strstr(s.request, "\r\n\r\n");
        EXPECT(body && !strcmp(body + 4, "cpu 1\n"));
        free(rep.error);

        /* basic auth wins over a bearer token */
        struct server b = { .answer = "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n" };
        o.username = "bw";
        o.password = "pw";
        EXPECT(exchange(h, &b, &o, "DELETE", NULL, NULL, &rep) == 0 && rep.status == 202);
        EXPECT(!strncmp(b.request, "DELETE /metrics/job/benchwatch ", 31));
        EXPECT(strstr(b.request, "\r\nAuthorization: Basic Ync6cHc=\r\n")); /* bw:pw */
        free(rep.error);
}

static void test_refusals(CURL *h)
{
        struct server s = {
                .answer = "HTTP/1.1 400 Bad Request\r\nContent-Length: 54\r\n\r\n"
                          "out of bounds: sample too old\nsecond line END-OF-BODY\n",
        };
        struct httpc_reply rep;
        struct httpc_opts o = base;
        o.answer_max = 40;
        EXPECT(exchange(h, &s, &o, "POST", NULL, "x", &rep) == -EIO);
        EXPECT(rep.status == 400);
        EXPECT(rep.error &&
               !strcmp(rep.error, "HTTP 400: out of bounds: sample too old second lin"));
        free(rep.error);

        struct server busy = { .answer = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 30\r\n"
                                         "Content-Length: 0\r\n\r\n" };
        EXPECT(exchange(h, &busy, &base, "POST", NULL, "x", &rep) == -EIO);
        EXPECT(rep.status == 503 && rep.retry_after == 30);
        EXPECT(rep.error && !strcmp(rep.error, "HTTP 503: (empty answer)"));
        free(rep.error);
}

static void test_no_answer(CURL *h)
{
        struct httpc_reply rep;
        struct httpc_opts o = base;
        int port;
        char url[64];
        int fd = listen_local(&port);
        close(fd); /* nobody listens there now */
        snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
        EXPECT(httpc_request(h, &o, "PUT", url, NULL, "x", 1, &rep) == -ECONNREFUSED);
        EXPECT(rep.status == 0 && rep.error && *rep.error);
        free(rep.error);

        struct server mute = { .answer = NULL };
        o.timeout_ms = 300;
        double t0 = now_mono();
        EXPECT(exchange(h, &mute, &o, "PUT", NULL, "x", &rep) == -ETIMEDOUT);
        EXPECT(now_mono() - t0 < 4 && rep.status == 0 && rep.error);
        free(rep.error);
}

int main(void)
{
        char *err = NULL;
        CURL *h = httpc_open(&err);
        if (!h) {
                printf("SKIP: libcurl cannot be loaded: %s\n", err ? err : "?");
                free(err);
                return 77;
        }
        test_success(h);
        test_refusals(h);
        test_no_answer(h);
        httpc_close(h);
        httpc_close(NULL);
        if (!test_failures)
                printf("test_httpc: ok\n");
        return test_failures != 0;
}
