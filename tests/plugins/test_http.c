/* test_http.c — the http plugin against real nginx, haproxy and two small
 * python servers on 127.0.0.1, through the recording fake host.
 *
 * The servers come from tests/integration/lib/http_servers.sh: run without
 * BW_HTTP_DIR set, the test starts itself again under bash with the servers
 * up (and torn down, by PID, when it ends).  It checks that request counts
 * agree with the servers' access logs (plain, keep-alive off, chunked, HEAD,
 * through haproxy), that 404/500 are non-2xx and status failures only when
 * expect_status says so (a run with nothing but those fails), that a
 * backend stopped mid-run shows as connect failures (direct) or 503s
 * (through haproxy), that a refused port, an unresolvable host and a silent
 * server end cleanly with a clear error, that a server that never closes
 * does not hold a keepalive=no client, and that a slow backend shows in
 * the latency quantiles, in open-loop mode from each request's intended
 * send time (and a low rate's requests/s over the run's window). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../fakehost.h"
#include "util/timeutil.h"

extern const struct bw_plugin benchwatch_plugin;

static const char *dir;

#define FRONT "url=http://127.0.0.1:18080"
#define HAPROXY "url=http://127.0.0.1:18085"

static long log_lines(const char *name)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s.access.log", dir, name);
        FILE *f = fopen(path, "re");
        long n = 0;
        int c;
        CHECK(f);
        while ((c = getc(f)) != EOF)
                n += c == '\n';
        fclose(f);
        return n;
}

/* nginx logs a request after it has sent the answer: give it a moment */
static long settled_lines(const char *name, long want)
{
        long n = log_lines(name);
        for (int i = 0; i < 100 && n < want; i++) {
                nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
                n = log_lines(name);
        }
        return n;
}

static pid_t server_pid(const char *name)
{
        char path[512];
        long pid = 0;
        snprintf(path, sizeof(path), "%s/%s.pid", dir, name);
        FILE *f = fopen(path, "re");
        CHECK(f);
        CHECK(fscanf(f, "%ld", &pid) == 1);
        fclose(f);
        return (pid_t)pid;
}

struct run {
        struct fakehost fh;
        int r;
        double secs;
};

static void run(struct run *x, const char *const *params)
{
        fakehost_init(&x->fh);
        double t0 = now_mono();
        x->r = fakehost_run(&x->fh, &benchwatch_plugin, params);
        x->secs = now_mono() - t0;
}

static double failed(struct run *x, const char *reason)
{
        char l[64];
        snprintf(l, sizeof(l), "reason=%s", reason);
        return fakehost_value(&x->fh, "failed_requests", l);
}

static double val(struct run *x, const char *name)
{
        return fakehost_value(&x->fh, name, "");
}

static double quantile(struct run *x, double q)
{
        const struct fake_metric *m = fakehost_find(&x->fh, "latency_seconds", "");
        CHECK(m);
        return bw_hist_quantile_ns(&m->hist, q) / 1e9;
}

static void no_failures(struct run *x)
{
        const char *reasons[] = { "connect", "receive", "length", "timeout", "status" };
        for (size_t i = 0; i < 5; i++)
                if (failed(x, reasons[i]) != 0) {
                        fprintf(stderr, "failed{%s} = %g\n", reasons[i], failed(x, reasons[i]));
                        CHECK(!"unexpected failures");
                }
}

/* The server is on this host (127.0.0.1): the report says so, with the
 * client's CPU a request, more than none and no more than its threads'
 * wall time allows. */
static void noted_local(const struct run *x, const char *const *params, double n)
{
        double us = 0;
        unsigned threads = 1;
        for (size_t i = 0; params[i]; i++)
                if (!strncmp(params[i], "threads=", 8))
                        CHECK(sscanf(params[i] + 8, "%u", &threads) == 1);
        CHECK(x->fh.last_log);
        CHECK(sscanf(x->fh.last_log, "the server is on this host: where its CPUs "
                     "are full, this client's own CPU, %lf µs a request", &us) == 1);
        CHECK(us > 0 && us * n <= x->secs * 1e6 * threads);
}

/* n requests, all answered, as many in the log, figures consistent */
static void counted(const char *log, const char *const *params, double n)
{
        struct run x;
        long before = log_lines(log);
        run(&x, params);
        noted_local(&x, params, n);
        CHECK(x.r == 0 && !x.fh.error);
        CHECK(val(&x, "complete_requests") == n);
        no_failures(&x);
        CHECK(val(&x, "non_2xx_responses") == 0);
        CHECK(settled_lines(log, before + (long)n) - before == (long)n);
        CHECK(x.fh.progress == (uint64_t)n);
        const struct fake_metric *lat = fakehost_find(&x.fh, "latency_seconds", "");
        CHECK(lat && lat->hist.count == (uint64_t)n);
        double bytes = val(&x, "total_transferred_bytes");
        double rps = val(&x, "requests_per_second"), t = val(&x, "time_taken_seconds");
        CHECK(rps > 0 && t > 0 && rps * t > n * 0.999 && rps * t < n * 1.001);
        CHECK(val(&x, "transfer_bytes_per_second") * t > bytes * 0.999);
        fakehost_done(&x.fh);
}

static void test_counts(void)
{
        counted("front", (const char *const[]){ FRONT "/index.html", "requests=2000",
                "concurrency=8", NULL }, 2000);
        counted("front", (const char *const[]){ FRONT "/index.html", "requests=300",
                "concurrency=3", "keepalive=no", NULL }, 300);
        counted("front", (const char *const[]){ FRONT "/index.html", "requests=50",
                "method=HEAD", NULL }, 50);
        /* gzip makes nginx answer chunked */
        counted("front", (const char *const[]){ FRONT "/big.bin", "requests=200",
                "concurrency=4", "header=Accept-Encoding: gzip", NULL }, 200);
        counted("front", (const char *const[]){ FRONT "/big.bin", "requests=100",
                "concurrency=2", NULL }, 100);
}

/* user:password@ in the URL becomes basic authentication */
static void test_auth(void)
{
        struct run x;
        run(&x, (const char *const[]){ "url=http://bw:pa55word@127.0.0.1:18080/private",
            "requests=20", NULL });
        CHECK(x.r == 0 && val(&x, "non_2xx_responses") == 0);
        CHECK(val(&x, "complete_requests") == 20);
        fakehost_done(&x.fh);
        run(&x, (const char *const[]){ "url=http://bw:wrong@127.0.0.1:18080/private",
            "requests=20", "expect_status=2xx", NULL });
        CHECK(x.r == -EPROTO && val(&x, "non_2xx_responses") == 20); /* every one a 401 */
        CHECK(failed(&x, "status") == 20);
        fakehost_done(&x.fh);
}

/* threads share connections, requests and rate exactly */
static void test_threads(void)
{
        counted("front", (const char *const[]){ FRONT "/index.html", "requests=1001",
                "concurrency=8", "threads=3", NULL }, 1001);
        counted("front", (const char *const[]){ FRONT "/index.html", "requests=2",
                "concurrency=8", "threads=4", NULL }, 2);
        counted("front", (const char *const[]){ FRONT "/index.html", "rate=300",
                "duration=1s", "concurrency=4", "threads=2", NULL }, 300);
}

static void test_bytes(void)
{
        struct run x;
        run(&x, (const char *const[]){ FRONT "/big.bin", "requests=10",
            "concurrency=1", NULL });
        CHECK(x.r == 0);
        double b = val(&x, "total_transferred_bytes");
        /* body plus a header of some hundred bytes, ten times */
        CHECK(b > 10 * 100000.0 && b < 10 * 101000.0);
        CHECK((long long)b % 10 == 0);
        fakehost_done(&x.fh);
}

static void test_haproxy(void)
{
        struct run x;
        long b1 = log_lines("b1"), b2 = log_lines("b2");
        run(&x, (const char *const[]){ HAPROXY "/index.html", "requests=1000",
            "concurrency=10", "target=haproxy", NULL });
        CHECK(x.r == 0);
        no_failures(&x);
        CHECK(val(&x, "complete_requests") == 1000);
        settled_lines("b1", b1 + 400);
        b2 = settled_lines("b2", b2 + 1000 - (log_lines("b1") - b1)) - b2;
        b1 = log_lines("b1") - b1;
        CHECK(b1 + b2 == 1000);
        CHECK(b1 >= 400 && b2 >= 400); /* round robin */
        fakehost_done(&x.fh);
}

static void non_2xx(const char *path, const char *expect, double status_failures)
{
        struct run x;
        char url[128], ex[64];
        snprintf(url, sizeof(url), FRONT "%s", path);
        snprintf(ex, sizeof(ex), "expect_status=%s", expect);
        run(&x, (const char *const[]){ url, "requests=100", "concurrency=4", ex, NULL });
        if (status_failures < 100) {
                CHECK(x.r == 0);
        } else { /* none expected: the run measured another page than meant */
                CHECK(x.r == -EPROTO);
                CHECK(strstr(x.fh.error, "no response from 127.0.0.1:") &&
                      strstr(x.fh.error, " had a status expect_status allows (100 "
                                         "responses, 100 of them non-2xx)"));
        }
        CHECK(val(&x, "complete_requests") == 100);
        CHECK(val(&x, "non_2xx_responses") == 100);
        CHECK(failed(&x, "status") == status_failures);
        CHECK(failed(&x, "connect") + failed(&x, "receive") + failed(&x, "length") +
              failed(&x, "timeout") == 0);
        fakehost_done(&x.fh);
}

static void test_status(void)
{
        non_2xx("/404", "", 0);       /* ab: non-2xx, not failed */
        non_2xx("/404", "2xx", 100);
        non_2xx("/500", "200", 100);
        non_2xx("/404", "200,404", 0);
        non_2xx("/500", "5xx", 0);
}

static void test_errors(void)
{
        struct run x;
        run(&x, (const char *const[]){ "url=http://127.0.0.1:18089/", NULL });
        CHECK(x.r < 0 && x.fh.error && x.secs < 2);
        CHECK(strstr(x.fh.error, "cannot connect to 127.0.0.1:18089: Connection refused"));
        fakehost_done(&x.fh);

        run(&x, (const char *const[]){ "url=http://no-such-host.invalid/", NULL });
        CHECK(x.r < 0 && x.fh.error && x.secs < 10);
        CHECK(strstr(x.fh.error, "cannot resolve host 'no-such-host.invalid'"));
        fakehost_done(&x.fh);

        /* a server that accepts and never answers: timeouts, then an error */
        run(&x, (const char *const[]){ "url=http://127.0.0.1:18084/", "duration=1s",
            "timeout=300ms", "concurrency=2", NULL });
        CHECK(x.r == -ETIMEDOUT && x.secs < 2.5);
        CHECK(strstr(x.fh.error, "no response from 127.0.0.1:18084 within 0.3s"));
        CHECK(failed(&x, "timeout") >= 4 && val(&x, "complete_requests") == 0);
        fakehost_done(&x.fh);

        /* and via https (libcurl) the same words */
        run(&x, (const char *const[]){ "url=https://127.0.0.1:18089/", NULL });
        CHECK(x.r < 0 && x.fh.error && x.secs < 2);
        CHECK(strstr(x.fh.error, "cannot connect to 127.0.0.1:18089"));
        fakehost_done(&x.fh);
}

static void test_params(void)
{
        struct run x;
        const char *const bad[][3] = {
                { "url=ftp://127.0.0.1/", NULL },
                { FRONT "/", "expect_status=abc", NULL },
                { FRONT "/", "expect_status=200,", NULL },
                { FRONT "/", "header=NoColonHere", NULL },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                run(&x, bad[i]);
                CHECK(x.r == -EINVAL && x.fh.error);
                fakehost_done(&x.fh);
        }
        static const char *const bad_params[] = { "concurrency=0", "method=FETCH" };
        for (size_t i = 0; i < 2; i++) {
                char *why = fakehost_param_error(&benchwatch_plugin,
                                                 (const char *const[]){ bad_params[i], NULL });
                CHECK(why);
                free(why);
        }
}

static void *stop_later(void *arg)
{
        struct timespec ts = { 0, 700 * 1000000 };
        nanosleep(&ts, NULL);
        kill(server_pid(arg), SIGTERM);
        return NULL;
}

/* Through haproxy, the dead backend's share becomes 503s; directly, the
 * connection is refused. */
static void test_backend_stops(void)
{
        struct run x;
        pthread_t t;
        long b1 = log_lines("b1"), b2 = log_lines("b2");
        CHECK(pthread_create(&t, NULL, stop_later, "b1") == 0);
        run(&x, (const char *const[]){ HAPROXY "/index.html", "duration=1.5s",
            "concurrency=4", "expect_status=2xx", NULL });
        pthread_join(t, NULL);
        CHECK(x.r == 0);
        double ok = val(&x, "complete_requests") - val(&x, "non_2xx_responses");
        long logged = log_lines("b1") - b1 + log_lines("b2") - b2;
        for (int i = 0; i < 100 && logged < ok; i++) { /* logged after the answer */
                nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
                logged = log_lines("b1") - b1 + log_lines("b2") - b2;
        }
        CHECK(failed(&x, "status") > 0);
        CHECK(failed(&x, "status") == val(&x, "non_2xx_responses"));
        CHECK(ok > 0 && logged >= ok && logged <= ok + 4);
        fakehost_done(&x.fh);

        b2 = log_lines("b2");
        CHECK(pthread_create(&t, NULL, stop_later, "b2") == 0);
        run(&x, (const char *const[]){ "url=http://127.0.0.1:18082/index.html",
            "duration=1.5s", "concurrency=4", NULL });
        pthread_join(t, NULL);
        CHECK(x.r == 0);
        double done = val(&x, "complete_requests");
        logged = settled_lines("b2", b2 + (long)done) - b2;
        CHECK(failed(&x, "connect") > 0 && failed(&x, "timeout") == 0);
        CHECK(done > 0 && logged >= done && logged <= done + 4);
        fakehost_done(&x.fh);
}

static double cpu_seconds(void)
{
        struct rusage ru;
        CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
        return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void test_slow(void)
{
        struct run fast, slow;
        run(&fast, (const char *const[]){ FRONT "/index.html", "duration=0.5s", NULL });
        double cpu = cpu_seconds();
        run(&slow, (const char *const[]){ FRONT "/slow", "duration=1s", NULL });
        cpu = cpu_seconds() - cpu;
        CHECK(fast.r == 0 && slow.r == 0);
        /* four requests out all the time, answers 0.2 s apart: the client
         * sleeps in between, it does not poll */
        CHECK(cpu < 0.1 * slow.secs);
        no_failures(&slow);
        CHECK(quantile(&slow, 0.5) >= 0.2 && quantile(&slow, 0.5) < 0.5);
        CHECK(quantile(&slow, 0.5) > 10 * quantile(&fast, 0.5));
        /* 4 connections, 0.2 s each: about 20 requests/s */
        CHECK(val(&slow, "requests_per_second") > 10 && val(&slow, "requests_per_second") < 21);
        fakehost_done(&fast.fh);
        fakehost_done(&slow.fh);
}

/* Open loop: 10 requests/s for 1 s on one connection to a 0.2 s backend.
 * A closed-loop client would report 0.2 s for every request; counted from
 * the intended send times, request k waits 0.2 + 0.1 k s. */
static void test_open_loop(void)
{
        struct run x;
        run(&x, (const char *const[]){ FRONT "/slow", "rate=10", "duration=1s",
            "concurrency=1", NULL });
        CHECK(x.r == 0);
        no_failures(&x);
        CHECK(val(&x, "complete_requests") == 10);
        CHECK(quantile(&x, 1) > 1.0 && quantile(&x, 0.5) > 0.5);
        /* counted from the intended time, not from the start of the run:
         * the last request was due 0.9 s after the start */
        CHECK(quantile(&x, 1) < val(&x, "time_taken_seconds") - 0.8);
        fakehost_done(&x.fh);

        /* a fast server at a modest rate: exactly rate x duration requests */
        long before = log_lines("front");
        run(&x, (const char *const[]){ FRONT "/index.html", "rate=400",
            "duration=1s", "concurrency=4", NULL });
        CHECK(x.r == 0);
        no_failures(&x);
        CHECK(val(&x, "complete_requests") == 400);
        CHECK(settled_lines("front", before + 400) - before == 400);
        CHECK(quantile(&x, 0.5) < 0.25); /* from the run start: 0.5 s */
        fakehost_done(&x.fh);

        /* a low rate: 4 requests in the second, 4 a second (wrk2's figure;
         * counted to the last outcome, 0.75 s in, it read 5.3) */
        run(&x, (const char *const[]){ FRONT "/index.html", "rate=4", "duration=1s",
            "concurrency=1", NULL });
        CHECK(x.r == 0);
        no_failures(&x);
        CHECK(val(&x, "complete_requests") == 4);
        CHECK(fabs(val(&x, "requests_per_second") - 4) < 0.05);
        CHECK(fabs(val(&x, "time_taken_seconds") - 1) < 0.0125);
        fakehost_done(&x.fh);
}

/* keepalive=no against a server that answers and never closes: the client
 * waits a moment for the close, then closes itself, as ab does at once (it
 * once waited out each request's timeout: 2 requests in a 5-s "1-s" run,
 * read as thousands a second). */
static void test_server_never_closes(void)
{
        struct run x;
        run(&x, (const char *const[]){ "url=http://127.0.0.1:18083/linger", "keepalive=no",
            "duration=1s", "concurrency=2", "timeout=3s", NULL });
        CHECK(x.r == 0);
        no_failures(&x);
        CHECK(x.secs < 1.5);
        CHECK(val(&x, "complete_requests") >= 10);
        CHECK(val(&x, "time_taken_seconds") > 0.9);
        fakehost_done(&x.fh);
}

/* https goes through libcurl: same figures, same failure words */
static void test_https(void)
{
        struct run x;
        counted("front", (const char *const[]){ "url=https://127.0.0.1:18086/index.html",
                "tls_verify=no", "requests=300", "concurrency=4", NULL }, 300);
        counted("front", (const char *const[]){ "url=https://127.0.0.1:18086/index.html",
                "tls_verify=no", "requests=40", "keepalive=no", NULL }, 40);
        run(&x, (const char *const[]){ "url=https://127.0.0.1:18086/404",
            "tls_verify=no", "requests=30", "expect_status=200", NULL });
        CHECK(x.r == -EPROTO && val(&x, "non_2xx_responses") == 30);
        CHECK(failed(&x, "status") == 30);
        fakehost_done(&x.fh);

        run(&x, (const char *const[]){ "url=https://127.0.0.1:18086/", NULL });
        CHECK(x.r < 0 && x.secs < 3);
        CHECK(strstr(x.fh.error, "cannot connect to 127.0.0.1:18086: SSL certificate problem"));
        fakehost_done(&x.fh);

        run(&x, (const char *const[]){ "url=https://127.0.0.1:18084/", "duration=1s",
            "timeout=300ms", NULL });
        CHECK(x.r == -ETIMEDOUT && x.secs < 2.5);
        CHECK(strstr(x.fh.error, "no response from 127.0.0.1:18084 within 0.3s"));
        fakehost_done(&x.fh);

        run(&x, (const char *const[]){ "url=https://no-such-host.invalid/", NULL });
        CHECK(x.r < 0 && strstr(x.fh.error, "cannot resolve host 'no-such-host.invalid'"));
        fakehost_done(&x.fh);
}

static void *stop_soon(void *arg)
{
        struct fakehost *fh = arg;
        nanosleep(&(struct timespec){ 0, 300 * 1000000 }, NULL);
        __atomic_store_n(&fh->stop, true, __ATOMIC_RELAXED);
        return NULL;
}

/* h->stopping() ends a run at once, even with every request stuck */
static void test_stopping(void)
{
        const char *const slow[] = { "url=http://127.0.0.1:18084/", "duration=10s",
                                     "timeout=10s", NULL };
        const char *const fast[] = { FRONT "/index.html", "duration=10s", "threads=2", NULL };
        const char *const *which[] = { slow, fast };
        for (int i = 0; i < 2; i++) {
                struct fakehost fh;
                pthread_t t;
                fakehost_init(&fh);
                CHECK(pthread_create(&t, NULL, stop_soon, &fh) == 0);
                double t0 = now_mono();
                int r = fakehost_run(&fh, &benchwatch_plugin, which[i]);
                pthread_join(t, NULL);
                CHECK(r == -ECANCELED && now_mono() - t0 < 1.5);
                fakehost_done(&fh);
        }
}

static int reexec(char **argv)
{
        const char *top = getenv("top_srcdir");
        char script[1024];
        if (!top)
                top = TOP_SRCDIR;
        snprintf(script, sizeof(script),
                 ". '%s/tests/integration/lib/http_servers.sh' && "
                 "{ http_servers_start || exit $?; } && "
                 "{ BW_HTTP_DIR=$HTTP_DIR \"$0\"; rc=$?; exit $rc; }",
                 top);
        execl("/bin/bash", "bash", "-c", script, argv[0], (char *)NULL);
        fprintf(stderr, "SKIP: cannot run bash: %s\n", strerror(errno));
        return 77;
}

int main(int argc, char **argv)
{
        dir = getenv("BW_HTTP_DIR");
        if (!dir)
                return reexec(argv);
        test_params();
        test_counts();
        test_bytes();
        test_threads();
        test_auth();
        test_status();
        test_haproxy();
        test_https();
        test_errors();
        test_slow();
        test_stopping();
        test_open_loop();
        test_server_never_closes();
        test_backend_stops(); /* last: it stops b1 and b2 */
        printf("test_http: all checks passed\n");
        return 0;
}
