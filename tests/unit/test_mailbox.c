/* test_mailbox.c — the mailbox between publish() and a sink's worker:
 * each probe has one slot holding a private copy of its latest result (a
 * later put replaces it, so an older one is never delivered), a put marks
 * the slot and wakes the worker, the worker takes what is marked and
 * nothing twice, a timed wait returns at its time, and finish stops a
 * worker even in the middle of an hour-long backoff. */
#include <errno.h>
#include <pthread.h>

#include "test.h"
#include "sink/mailbox.h"
#include "util/timeutil.h"

struct worker {
        struct mailbox box;
        pthread_t thread;
        double seen[8];    /* value of each delivery, in order */
        char probe[8][16];
        size_t n;
        double took;       /* the timed wait's length */
        bool done;
};

static const char FAMILY[] = "benchwatch_cpu_events_per_second";

static struct result *run_of(const char *probe, double v)
{
        struct result *r = result_new(probe, "cpu");
        CHECK(r && result_add(r, FAMILY, "", METRIC_GAUGE, NULL, v, NULL) == 0);
        r->success = true;
        return r;
}

static double value_of(const struct result *r)
{
        const struct sample *s = r ? result_find_sample(r, FAMILY, NULL) : NULL;
        return s ? s->value : -1;
}

/* Takes every marked slot, as the textfile and Pushgateway workers do. */
static void *deliver(void *arg)
{
        struct worker *w = arg;
        struct mailbox *l = &w->box;
        pthread_mutex_lock(&l->lock);
        for (;;) {
                mailbox_wait(l, 0);
                int i = mailbox_next_dirty(l);
                if (i < 0)
                        break; /* stopping */
                l->dirty[i] = false;
                if (w->n < 8) {
                        w->seen[w->n] = value_of(l->results[i]);
                        snprintf(w->probe[w->n], sizeof(w->probe[0]), "%s",
                                 l->results[i]->probe);
                        w->n++;
                }
        }
        w->done = true;
        pthread_mutex_unlock(&l->lock);
        return NULL;
}

/* Whether the worker made n deliveries (n = 0: finished) within 5 s. */
static bool reached(struct worker *w, size_t n)
{
        for (int i = 0; i < 500; i++) {
                pthread_mutex_lock(&w->box.lock);
                bool ok = n ? w->n >= n : w->done;
                pthread_mutex_unlock(&w->box.lock);
                if (ok)
                        return true;
                sleep_until_ns(now_ns() + 10000000);
        }
        return false;
}

static void test_deliveries(void)
{
        struct worker w = { 0 };
        struct result *a = run_of("a", 1), *b = run_of("b", 2);
        CHECK(mailbox_start(&w.box, &w.thread, deliver, &w) == 0);
        CHECK(mailbox_put(&w.box, a) == 0);
        a->families[0].samples[0].value = 99; /* the mailbox holds a copy */
        EXPECT(reached(&w, 1) && w.seen[0] == 1 && !strcmp(w.probe[0], "a"));
        CHECK(mailbox_put(&w.box, b) == 0);
        EXPECT(reached(&w, 2) && w.seen[1] == 2 && !strcmp(w.probe[1], "b"));
        CHECK(mailbox_put(&w.box, a) == 0);
        EXPECT(reached(&w, 3) && w.seen[2] == 99 && !strcmp(w.probe[2], "a"));
        pthread_mutex_lock(&w.box.lock);
        EXPECT(w.box.n == 2 && mailbox_next_dirty(&w.box) == -1); /* one slot a probe */
        pthread_mutex_unlock(&w.box.lock);
        mailbox_finish(&w.box, w.thread);
        EXPECT(w.done && w.n == 3); /* nothing delivered twice */
        result_free(a);
        result_free(b);
}

static void *idle(void *arg)
{
        return arg;
}

/* Two puts of one probe before the worker looks: the slot holds the
 * latest, marked once. */
static void test_latest_only(void)
{
        struct worker w = { 0 };
        struct result *r1 = run_of("b", 3), *r2 = run_of("b", 4), *c = run_of("c", 5);
        CHECK(mailbox_start(&w.box, &w.thread, idle, NULL) == 0);
        CHECK(mailbox_put(&w.box, r1) == 0 && mailbox_put(&w.box, c) == 0 &&
              mailbox_put(&w.box, r2) == 0);
        pthread_mutex_lock(&w.box.lock);
        EXPECT(w.box.n == 2 && value_of(w.box.results[0]) == 4 &&
               value_of(w.box.results[1]) == 5);
        EXPECT(mailbox_next_dirty(&w.box) == 0);
        w.box.dirty[0] = false;
        EXPECT(mailbox_next_dirty(&w.box) == 1);
        w.box.dirty[1] = false;
        EXPECT(mailbox_next_dirty(&w.box) == -1);
        pthread_mutex_unlock(&w.box.lock);
        mailbox_finish(&w.box, w.thread);
        result_free(r1);
        result_free(r2);
        result_free(c);
}

static void *timed(void *arg)
{
        struct worker *w = arg;
        pthread_mutex_lock(&w->box.lock);
        double t0 = now_mono();
        mailbox_wait(&w->box, t0 + 0.2); /* nothing comes */
        w->took = now_mono() - t0;
        w->done = true;
        pthread_mutex_unlock(&w->box.lock);
        return NULL;
}

static void *backoff(void *arg)
{
        struct worker *w = arg;
        pthread_mutex_lock(&w->box.lock);
        mailbox_sleep(&w->box, now_mono() + 3600);
        w->done = true;
        pthread_mutex_unlock(&w->box.lock);
        return NULL;
}

static void test_waits(void)
{
        struct worker w = { 0 };
        CHECK(mailbox_start(&w.box, &w.thread, timed, &w) == 0);
        EXPECT(reached(&w, 0));
        EXPECT(w.took >= 0.19 && w.took < 2);
        mailbox_finish(&w.box, w.thread);

        struct worker s = { 0 };
        CHECK(mailbox_start(&s.box, &s.thread, backoff, &s) == 0);
        sleep_until_ns(now_ns() + 50000000); /* in its sleep by now */
        double t0 = now_mono();
        mailbox_finish(&s.box, s.thread); /* the stop ends the backoff */
        EXPECT(s.done && now_mono() - t0 < 5);
}

int main(void)
{
        test_deliveries();
        test_latest_only();
        test_waits();
        if (!test_failures)
                printf("test_mailbox: ok\n");
        return test_failures != 0;
}
